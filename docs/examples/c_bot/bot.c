/* An example bot in C for the ladder's JSON-lines protocol (docs/writing-a-bot.md), built at submission.
 *
 * The ladder writes one JSON object per line on stdin:
 *   {"type": "start", "game", "seat", "num_players", "options", "seed"}   a match begins
 *   {"type": "act", "observation", "legal"}                               your turn: choose one of `legal`
 *   {"type": "end", "result"}                                             the match is over
 * and reads one line on stdout for every "act": the index of the chosen action in `legal`.
 * Anything written to stderr is kept by the ladder (`ladder logs NAME` shows it).
 *
 * The rule of thumb (Elfer raus): cards left in hand at the end of a round are penalty points, so lay a
 * card whenever one fits, the highest first (and a 1 or a 20 before anything else: they free no card for
 * the others); when none fits, draw, and end the turn only when that is all that is left.
 *
 * It needs nothing but the C library: below is a small but complete JSON reader (it checks the syntax of
 * every value, including the observation it does not use, and decodes the strings it reads).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ACTIONS 4096
#define MAX_DEPTH 64
#define TEXT 32

typedef struct {
    char type[TEXT];
    long number; /* the card's number for a "play", else 0 */
} Action;

typedef struct {
    char type[TEXT];
    char game[TEXT];
    unsigned long long seed;
    int count; /* legal actions */
    Action legal[MAX_ACTIONS];
} Message;

static const char *at; /* the reader's position in the current line */

static void spaces(void) {
    while (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r') at++;
}

static int expect(char c) {
    spaces();
    if (*at != c) return 0;
    at++;
    return 1;
}

/* A JSON string, decoded into out (cut to size; out may be NULL to skip it). */
static int string(char *out, size_t size) {
    size_t length = 0;
    if (!expect('"')) return 0;
    for (;;) {
        unsigned char c = (unsigned char)*at++;
        unsigned code = c;
        if (c == '"') break;
        if (c < 0x20) return 0; /* a control character, or the end of the line */
        if (c == '\\') {
            char e = *at++;
            const char *plain = strchr("\"\\/bfnrt", e);
            if (e == 'u') {
                code = 0;
                for (int i = 0; i < 4; i++, at++) {
                    if (!isxdigit((unsigned char)*at)) return 0;
                    code = code * 16 + (unsigned)(isdigit((unsigned char)*at) ? *at - '0' : (tolower(*at) - 'a' + 10));
                }
                if (code > 0x7f) code = '?'; /* the bot compares ASCII words only */
            } else if (e != '\0' && plain != NULL) {
                code = (unsigned char)"\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"];
            } else {
                return 0;
            }
        }
        if (out != NULL && length + 1 < size) out[length++] = (char)code;
    }
    if (out != NULL && size > 0) out[length] = '\0';
    return 1;
}

/* A JSON number; its value (as a whole number, when it is one) in *value. */
static int number(long double *value) {
    const char *start;
    char *end;
    spaces();
    start = at;
    if (*at == '-') at++;
    if (*at == '0') at++;
    else if (isdigit((unsigned char)*at)) while (isdigit((unsigned char)*at)) at++;
    else return 0;
    if (*at == '.') {
        at++;
        if (!isdigit((unsigned char)*at)) return 0;
        while (isdigit((unsigned char)*at)) at++;
    }
    if (*at == 'e' || *at == 'E') {
        at++;
        if (*at == '+' || *at == '-') at++;
        if (!isdigit((unsigned char)*at)) return 0;
        while (isdigit((unsigned char)*at)) at++;
    }
    if (value != NULL) *value = strtold(start, &end);
    return 1;
}

static int value(int depth);

/* The members of an object: each key is handed to on_key, which reads (or skips) its value. */
static int object(int depth, int (*on_key)(const char *key, void *state), void *state) {
    char key[TEXT];
    if (depth > MAX_DEPTH || !expect('{')) return 0;
    if (expect('}')) return 1;
    do {
        if (!string(key, sizeof key) || !expect(':')) return 0;
        if (!(on_key != NULL ? on_key(key, state) : value(depth + 1))) return 0;
    } while (expect(','));
    return expect('}');
}

static int skip_member(const char *key, void *state) {
    (void)key;
    return value(*(int *)state);
}

/* Any JSON value, checked and skipped. */
static int value(int depth) {
    spaces();
    if (depth > MAX_DEPTH) return 0;
    if (*at == '{') {
        int inner = depth + 1;
        return object(depth, skip_member, &inner);
    }
    if (*at == '[') {
        at++;
        if (expect(']')) return 1;
        do {
            if (!value(depth + 1)) return 0;
        } while (expect(','));
        return expect(']');
    }
    if (*at == '"') return string(NULL, 0);
    if (strncmp(at, "true", 4) == 0 || strncmp(at, "null", 4) == 0) return at += 4, 1;
    if (strncmp(at, "false", 5) == 0) return at += 5, 1;
    return number(NULL);
}

static int action_member(const char *key, void *state) {
    Action *action = state;
    long double n;
    if (strcmp(key, "type") == 0) return string(action->type, sizeof action->type);
    if (strcmp(key, "number") == 0 && (spaces(), *at == '-' || isdigit((unsigned char)*at))) {
        if (!number(&n)) return 0;
        action->number = (long)n;
        return 1;
    }
    return value(2);
}

static int legal_actions(Message *message) {
    if (!expect('[')) return 0;
    if (expect(']')) return 1;
    do {
        Action ignored, *action = message->count < MAX_ACTIONS ? &message->legal[message->count] : &ignored;
        memset(action, 0, sizeof *action);
        if (!object(1, action_member, action)) return 0;
        if (message->count < MAX_ACTIONS) message->count++;
    } while (expect(','));
    return expect(']');
}

static int message_member(const char *key, void *state) {
    Message *message = state;
    long double n;
    if (strcmp(key, "type") == 0) return string(message->type, sizeof message->type);
    if (strcmp(key, "game") == 0) return string(message->game, sizeof message->game);
    if (strcmp(key, "legal") == 0) return legal_actions(message);
    if (strcmp(key, "seed") == 0) {
        const char *start = (spaces(), at);
        if (!number(&n)) return 0;
        message->seed = strtoull(start, NULL, 10);
        return 1;
    }
    return value(1);
}

static int read_message(const char *line, Message *message) {
    memset(message->type, 0, sizeof message->type);
    message->count = 0;
    at = line;
    return object(0, message_member, message) && (spaces(), *at == '\0');
}

/* A small seeded generator (splitmix64): the same match plays the same way every time. */
static unsigned long long rng = 1;

static unsigned long long next_random(void) {
    unsigned long long z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int index_of(const Message *message, const char *type) {
    for (int i = 0; i < message->count; i++)
        if (strcmp(message->legal[i].type, type) == 0) return i;
    return -1;
}

/* The rule of thumb (see the top of the file); an action at random when the game offers none of its words. */
static int choose(const Message *message) {
    int best = -1, best_score = -1;
    for (int i = 0; i < message->count; i++) {
        const Action *action = &message->legal[i];
        int score = (action->number == 1 || action->number == 20) ? 100 : (int)action->number;
        if (strcmp(action->type, "play") == 0 && score > best_score) best = i, best_score = score;
    }
    if (best >= 0) return best;
    if ((best = index_of(message, "draw")) >= 0) return best;
    if ((best = index_of(message, "end_turn")) >= 0) return best;
    return (int)(next_random() % (unsigned long long)message->count);
}

int main(void) {
    static Message message;
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) != -1) {
        if (!read_message(line, &message)) {
            fprintf(stderr, "example-c: a line that is not a JSON object: %.80s\n", line);
            return 1;
        }
        if (strcmp(message.type, "start") == 0) {
            rng = message.seed;
            fprintf(stderr, "example-c: %s, a new match\n", message.game);
        } else if (strcmp(message.type, "act") == 0) {
            if (message.count == 0) {
                fprintf(stderr, "example-c: asked to act with no legal action\n");
                return 1;
            }
            printf("%d\n", choose(&message));
            fflush(stdout);
        } else if (strcmp(message.type, "end") == 0) {
            fprintf(stderr, "example-c: the match is over\n");
        }
    }
    free(line);
    return 0;
}
