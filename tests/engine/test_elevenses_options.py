"""Rules of Elevenses: the editions, the options and the special guests, each quoting the rulebook.

Quotes are from ``elevenses-rules-en.txt`` unless marked (fr), from
``elevenses-rules-fr.txt``. Positions are built with :func:`position`, which
fills every card not named; guest tests read the guest table from the state,
so they hold for any table of guests.
"""

from __future__ import annotations

import pytest

from engine import DealError, IllegalActionError, OptionError
from engine.elevenses import GAME
from engine.elevenses.cards import CARD_VALUES, HOUSE_GUESTS, guest_cards_text, parse_guest_cards
from tests.engine.elevenses_helpers import (
    BISCUITS,
    CAKES,
    CHINA,
    CUPS,
    ELEVEN,
    MILK,
    SANDWICHES,
    SUGAR,
    TEA,
    TROLLEY,
    C,
    ending_position,
    events_of,
    finish_turn,
    play,
    position,
)


# =====================================================================================
# editions and options
# =====================================================================================
def test_editions_set_target_and_bowl():
    """English: "until a player has 5 or more sugar cubes", "25 Plastic Sugar Cubes"; French:
    "lorsqu'un joueur possède 7 cubes ou plus", "30 cubes Sucre".\""""
    en = GAME.new_state(2, 0, {"sugar_bowl": "limited"})
    fr = GAME.new_state(2, 0, {"edition": "fr", "sugar_bowl": "limited"})
    assert (en.target_cubes, en.bowl) == (5, 25)
    assert (fr.target_cubes, fr.bowl) == (7, 30)
    # the box's count bounds the bowl only with the limited bowl (decision D14)
    assert GAME.new_state(2, 0, {"edition": "fr"}).bowl is None


@pytest.mark.parametrize(
    ("edition", "target", "expected"), [("en", 9, 9), ("fr", 5, 5), ("fr", 11, 11), ("en", "edition", 5)]
)
def test_target_variant(edition, target, expected):
    """(fr) "changez simplement le nombre (5, 9 ou 11) de cubes sucre nécessaire pour la victoire !\""""
    state = GAME.new_state(3, 0, {"edition": edition, "target": target})
    assert state.target_cubes == expected
    assert state.observation(0)["target_cubes"] == expected


def test_target_option_rejects_other_values():
    with pytest.raises(OptionError):
        GAME.validate_options({"target": 6})
    assert GAME.parse_options(["target=9"])["target"] == 9


def test_french_edition_announces_the_value_after_each_play():
    """(fr) "Pour terminer, le joueur annonce la valeur totale des cartes posées visibles sur sa
    nappe" -- the face-up cards are public anyway; the announcement is an event."""
    state = position(
        2, kitchens={0: [C(SUGAR, 0), C(MILK, 0), C(ELEVEN, 0)]}, up={0: {9: C(CAKES, 0)}}, options={"edition": "fr"}
    )
    play(state, C(SUGAR, 0))
    assert events_of(state.observation(1), "announce") == [{"type": "announce", "seat": 0, "value": 3}]
    english = position(2, kitchens={0: [C(SUGAR, 0), C(MILK, 0), C(ELEVEN, 0)]})
    play(english, C(SUGAR, 0))
    assert events_of(english.observation(1), "announce") == []


def test_french_target_seven_ends_there():
    state = ending_position(2, [5, 0], options={"edition": "fr"})
    play(state, C(ELEVEN, 0))
    assert state.cubes == [7, 0] and state.is_over()


def test_from_deal_rejects_impossible_layouts():
    def deal(kitchen0, kitchen1, spread0=None):
        spreads = [spread0 or [C(k, 0) for k in range(1, 9)], [C(k, 1) for k in range(1, 9)]]
        return {"spreads": spreads, "kitchens": [kitchen0, kitchen1]}

    GAME.from_deal(deal([C(9, 0), C(10, 0), C(11, 0)], [C(9, 1), C(10, 1), C(11, 1)]))
    with pytest.raises(DealError):  # a kitchen too small
        GAME.from_deal(deal([C(9, 0), C(10, 0)], [C(9, 1), C(10, 1), C(11, 1), C(11, 0)]))
    with pytest.raises(DealError):  # an Elevenses with another seat
        GAME.from_deal(deal([C(9, 0), C(10, 0), C(11, 1)], [C(9, 1), C(10, 1), C(11, 0)]))
    with pytest.raises(DealError):  # a card twice
        GAME.from_deal(deal([C(9, 0), C(10, 0), C(10, 0)], [C(9, 1), C(10, 1), C(11, 1)]))
    spread = [None, {"up": C(3, 0)}] + [{"down": C(k, 0)} for k in (1, 2, 4, 5, 6, 7, 8)] + [None]
    with pytest.raises(DealError):  # a face-up card away from its position
        GAME.from_deal(deal([C(9, 0), C(10, 0), C(11, 0)], [C(9, 1), C(10, 1), C(11, 1)], spread))


def test_illegal_action_changes_nothing():
    state = position(2, kitchens={0: [C(MILK, 0), C(TEA, 0), C(ELEVEN, 0)]})
    with pytest.raises(IllegalActionError):
        state.apply({"type": "play", "card": C(ELEVEN, 0)})  # no four face-up cards


# =====================================================================================
# special guests (the advanced rules)
# =====================================================================================
CUSTOM_GUESTS = "1-9-10,2-3-4,5-6-7,8-9-2,3-5-7,4-6-8"


def _kitchen_for(ups, first, avoid=()):
    """A kitchen for seat 0 holding ``first`` and fillers, of the size its spread allows."""
    size = 3 - sum(1 for p in ups if p in (1, 10))
    kitchen = list(first)
    for filler in (ELEVEN, TEA, MILK, SUGAR, CUPS, CHINA, BISCUITS, SANDWICHES, CAKES):
        if len(kitchen) >= size:
            break
        if filler not in ups and filler not in avoid and C(filler, 0) not in kitchen:
            kitchen.append(C(filler, 0))
    return kitchen


def _guest_position(options, wants):
    """Seat 0 holds guest 0 and has two of its three cards face up; the third is in its kitchen."""
    ups = {wants[0]: C(wants[0], 0), wants[1]: C(wants[1], 0)}
    kitchen = _kitchen_for(ups, [C(wants[2], 0)], avoid=wants)
    return position(2, kitchens={0: kitchen}, up={0: ups}, options=options, guests=[0, 1])


@pytest.mark.parametrize("table", ["house", CUSTOM_GUESTS])
def test_special_guest_arrives_at_the_end_of_the_turn_worth_two(table):
    """ "At the end of a turn in which the 3 morning tea cards depicted on your special guest card
    are face-up in your spread, you may reveal your special guest card. Turn it face-up. Your
    morning tea has gained 2 value!\""""
    options = {"special_guests": True, "guest_cards": table}
    wants = parse_guest_cards(table)[0].wants
    state = _guest_position(options, wants)
    assert state.observation(1)["guests"][0] is None and state.observation(1)["my_guest"] == 1
    assert state.observation(0)["guests"][0] is None and state.observation(0)["my_guest"] == 0
    value_before = state.card_value(0)
    play(state, C(wants[2], 0))
    finish_turn(state, 0)
    assert state.guest_shown[0]
    assert state.spread_value(0) == state.card_value(0) + 2
    assert state.card_value(0) >= value_before
    assert state.observation(1)["guests"][0] == 0
    arrivals = events_of(state.observation(1), "guest_arrives")
    assert arrivals == [{"type": "guest_arrives", "seat": 0, "guest": 0, "wants": list(wants)}]


@pytest.mark.parametrize("table", ["house", CUSTOM_GUESTS])
def test_special_guest_stays_when_a_card_is_turned_face_down(table):
    """ "If later in the game, one of these 3 morning tea cards is turned face-down again, your
    special guest card remains face-up.\""""
    options = {"special_guests": True, "guest_cards": table}
    wants = parse_guest_cards(table)[0].wants
    ups = {w: C(w, 0) for w in wants}
    state = position(
        2,
        kitchens={1: [C(TEA, 1), C(MILK, 1), C(ELEVEN, 1)]},
        up={0: ups},
        options=options,
        guests=[0, 1],
        guests_revealed=[True, False],
        player=1,
    )
    flippable = [w for w in wants if 2 <= w <= 9]
    play(state, C(TEA, 1))
    if flippable:
        state.apply({"type": "tea", "seat": 0, "position": flippable[0]})
        assert not state.up[0][flippable[0]]
    assert state.guest_shown[0]
    assert state.spread_value(0) == state.card_value(0) + 2


def test_special_guest_is_not_revealed_after_elevenses():
    """ "You may not reveal your special guest card after playing the Elevenses card." (The
    position is built by hand: in play the guest would have come at the end of an earlier turn.)"""
    options = {"special_guests": True}
    wants = GAME.guest_table(GAME.validate_options(options))[0].wants
    ups = {w: C(w, 0) for w in wants}
    extra = next(p for p in range(2, 10) if p not in wants)
    ups[extra] = C(extra, 0)
    state = position(2, kitchens={0: _kitchen_for(ups, [C(ELEVEN, 0)])}, up={0: ups}, options=options, guests=[0, 1])
    play(state, C(ELEVEN, 0))
    end = events_of(state.observation(1), "round_end")[0]
    assert end["values"][0] == sum(CARD_VALUES[p] for p in ups)  # no +2: the guest never arrived


def test_a_revealed_guest_does_not_count_toward_elevenses():
    """ "when it is face-up it does not count as one of the 4 cards required to play the Elevenses card.\""""
    state = position(
        2,
        kitchens={0: [C(ELEVEN, 0), C(TEA, 0)]},
        up={0: {1: C(TROLLEY, 0), 6: C(CHINA, 0), 7: C(BISCUITS, 0)}},
        options={"special_guests": True},
        guests=[0, 1],
        guests_revealed=[True, False],
    )
    assert {"type": "play", "card": C(ELEVEN, 0)} not in state.legal_actions()
    assert state.spread_value(0) == 4 + 2


def test_guests_are_dealt_one_per_seat_each_round():
    """ "At the start of each round, shuffle all 6 special guest cards and randomly deal 1
    face-down to each player. Any remaining special guest cards are not used this round.\""""
    seen = set()
    for seed in range(12):
        state = GAME.new_state(4, seed, {"special_guests": True})
        assert len(set(state.guest)) == 4 and all(0 <= g < 6 for g in state.guest)
        seen.update(state.guest)
    assert seen == set(range(6))
    assert GAME.new_state(2, 0).guest == [-1, -1]


def test_guest_cards_option_is_validated():
    assert parse_guest_cards(guest_cards_text(HOUSE_GUESTS)) != HOUSE_GUESTS  # same wants, other names
    assert [g.wants for g in parse_guest_cards(guest_cards_text(HOUSE_GUESTS))] == [g.wants for g in HOUSE_GUESTS]
    for bad in ["1-2-3", "1-2-11,2-3-4,5-6-7,8-9-2,3-5-7,4-6-8", "1-1-2,2-3-4,5-6-7,8-9-2,3-5-7,4-6-8", "x"]:
        with pytest.raises(OptionError):
            GAME.validate_options({"guest_cards": bad})
    GAME.validate_options({"guest_cards": CUSTOM_GUESTS})
