-- The schema that the ladder made on SQLite before Alembic (schema version 5, main before issue 36: create_all of
-- ladder/store/tables.py and service/models.py), as `sqlite3 ladder.db .schema` prints it. Frozen: the migration
-- tests build pre-Alembic databases from it and upgrade them in place.
CREATE TABLE schemainfo (
	id INTEGER NOT NULL, 
	version INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
CREATE TABLE bot (
	name VARCHAR NOT NULL, 
	author VARCHAR NOT NULL, 
	id INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
CREATE UNIQUE INDEX ix_bot_name ON bot (name);
CREATE TABLE tournament (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	file VARCHAR NOT NULL, 
	seed INTEGER NOT NULL, 
	fingerprint VARCHAR NOT NULL, 
	config_json VARCHAR NOT NULL, 
	state VARCHAR NOT NULL, 
	scheduled INTEGER NOT NULL, 
	cycles INTEGER NOT NULL, 
	pid INTEGER, 
	host VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	finished_at DATETIME, 
	deal_secret VARCHAR, 
	deal_commitment VARCHAR NOT NULL, 
	secret_revealed_at DATETIME, 
	previous_deals VARCHAR NOT NULL, 
	PRIMARY KEY (id)
);
CREATE INDEX ix_tournament_name ON tournament (name);
CREATE INDEX ix_tournament_fingerprint ON tournament (fingerprint);
CREATE TABLE rating_state (
	id INTEGER NOT NULL, 
	computed_at DATETIME NOT NULL, 
	match_count INTEGER NOT NULL, 
	last_match_id INTEGER NOT NULL, 
	method VARCHAR NOT NULL, 
	PRIMARY KEY (id)
);
CREATE TABLE serve_author (
	id INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	role VARCHAR NOT NULL, 
	token_hash VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	revoked_at DATETIME, 
	PRIMARY KEY (id)
);
CREATE UNIQUE INDEX ix_serve_author_token_hash ON serve_author (token_hash);
CREATE UNIQUE INDEX ix_serve_author_name ON serve_author (name);
CREATE TABLE bot_version (
	version VARCHAR NOT NULL, 
	content_hash VARCHAR NOT NULL, 
	games_json VARCHAR NOT NULL, 
	source VARCHAR NOT NULL, 
	store_path VARCHAR NOT NULL, 
	id INTEGER NOT NULL, 
	bot_id INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(bot_id) REFERENCES bot (id)
);
CREATE INDEX ix_bot_version_bot_id ON bot_version (bot_id);
CREATE INDEX ix_bot_version_content_hash ON bot_version (content_hash);
CREATE TABLE IF NOT EXISTS "match" (
	id INTEGER NOT NULL, 
	tournament_id INTEGER NOT NULL, 
	"key" VARCHAR NOT NULL, 
	cycle INTEGER NOT NULL, 
	deal VARCHAR NOT NULL, 
	game VARCHAR NOT NULL, 
	options_json VARCHAR NOT NULL, 
	num_players INTEGER NOT NULL, 
	seed INTEGER NOT NULL, 
	seats_json VARCHAR NOT NULL, 
	status VARCHAR NOT NULL, 
	error VARCHAR NOT NULL, 
	attempts INTEGER NOT NULL, 
	started_at DATETIME, 
	finished_at DATETIME NOT NULL, 
	seconds FLOAT NOT NULL, 
	think_json VARCHAR NOT NULL, 
	details_json VARCHAR NOT NULL, 
	action_count INTEGER NOT NULL, 
	actions_z BLOB NOT NULL, 
	move_us_z BLOB NOT NULL, 
	worker VARCHAR NOT NULL, 
	host_json VARCHAR NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_match_tournament_key UNIQUE (tournament_id, "key"), 
	FOREIGN KEY(tournament_id) REFERENCES tournament (id)
);
CREATE INDEX ix_match_tournament_id ON "match" (tournament_id);
CREATE INDEX ix_match_deal ON "match" (deal);
CREATE INDEX ix_match_game ON "match" (game);
CREATE TABLE serve_web_session (
	id INTEGER NOT NULL, 
	cookie_hash VARCHAR NOT NULL, 
	author_id INTEGER NOT NULL, 
	csrf_token VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	expires_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(author_id) REFERENCES serve_author (id)
);
CREATE UNIQUE INDEX ix_serve_web_session_cookie_hash ON serve_web_session (cookie_hash);
CREATE INDEX ix_serve_web_session_author_id ON serve_web_session (author_id);
CREATE TABLE serve_bot (
	bot_id INTEGER NOT NULL, 
	author_id INTEGER NOT NULL, 
	state VARCHAR NOT NULL, 
	reason VARCHAR NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (bot_id), 
	FOREIGN KEY(bot_id) REFERENCES bot (id), 
	FOREIGN KEY(author_id) REFERENCES serve_author (id)
);
CREATE INDEX ix_serve_bot_author_id ON serve_bot (author_id);
CREATE TABLE serve_planned (
	id INTEGER NOT NULL, 
	tournament_id INTEGER NOT NULL, 
	round INTEGER NOT NULL, 
	"key" VARCHAR NOT NULL, 
	deal VARCHAR NOT NULL, 
	pool VARCHAR NOT NULL, 
	number INTEGER NOT NULL, 
	placement BOOLEAN NOT NULL, 
	version_ids_json VARCHAR NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(tournament_id) REFERENCES tournament (id)
);
CREATE INDEX ix_serve_planned_tournament_id ON serve_planned (tournament_id);
CREATE INDEX ix_serve_planned_key ON serve_planned ("key");
CREATE INDEX ix_serve_planned_round ON serve_planned (round);
CREATE TABLE seat_result (
	id INTEGER NOT NULL, 
	match_id INTEGER NOT NULL, 
	seat INTEGER NOT NULL, 
	bot_version_id INTEGER NOT NULL, 
	score FLOAT, 
	rank INTEGER, 
	failure_reason VARCHAR, 
	failure_detail VARCHAR NOT NULL, 
	stderr_tail VARCHAR NOT NULL, 
	at_action INTEGER, 
	PRIMARY KEY (id), 
	FOREIGN KEY(match_id) REFERENCES "match" (id), 
	FOREIGN KEY(bot_version_id) REFERENCES bot_version (id)
);
CREATE INDEX ix_seat_result_match_id ON seat_result (match_id);
CREATE INDEX ix_seat_result_bot_version_id ON seat_result (bot_version_id);
CREATE TABLE bench_pool (
	id INTEGER NOT NULL, 
	tournament_id INTEGER NOT NULL, 
	bot_version_id INTEGER NOT NULL, 
	pool VARCHAR NOT NULL, 
	reason VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_bench_pool UNIQUE (tournament_id, bot_version_id, pool), 
	FOREIGN KEY(tournament_id) REFERENCES tournament (id), 
	FOREIGN KEY(bot_version_id) REFERENCES bot_version (id)
);
CREATE INDEX ix_bench_pool_tournament_id ON bench_pool (tournament_id);
CREATE TABLE rating (
	id INTEGER NOT NULL, 
	pool VARCHAR NOT NULL, 
	game VARCHAR NOT NULL, 
	num_players INTEGER NOT NULL, 
	bot_version_id INTEGER NOT NULL, 
	mu FLOAT NOT NULL, 
	sigma FLOAT NOT NULL, 
	conservative FLOAT NOT NULL, 
	matches INTEGER NOT NULL, 
	wins INTEGER NOT NULL, 
	score_sum FLOAT NOT NULL, 
	failures INTEGER NOT NULL, 
	draw_probability FLOAT NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(bot_version_id) REFERENCES bot_version (id)
);
CREATE INDEX ix_rating_game ON rating (game);
CREATE INDEX ix_rating_bot_version_id ON rating (bot_version_id);
CREATE INDEX ix_rating_pool ON rating (pool);
CREATE TABLE rating_history (
	id INTEGER NOT NULL, 
	pool VARCHAR NOT NULL, 
	event INTEGER NOT NULL, 
	match_id INTEGER NOT NULL, 
	bot_version_id INTEGER NOT NULL, 
	mu FLOAT NOT NULL, 
	sigma FLOAT NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(bot_version_id) REFERENCES bot_version (id)
);
CREATE INDEX ix_rating_history_pool ON rating_history (pool);
CREATE INDEX ix_rating_history_bot_version_id ON rating_history (bot_version_id);
CREATE TABLE serve_submission (
	id INTEGER NOT NULL, 
	author_id INTEGER NOT NULL, 
	state VARCHAR NOT NULL, 
	filename VARCHAR NOT NULL, 
	upload_dir VARCHAR NOT NULL, 
	name_override VARCHAR NOT NULL, 
	bot_name VARCHAR NOT NULL, 
	content_hash VARCHAR NOT NULL, 
	bot_version_id INTEGER, 
	problem VARCHAR NOT NULL, 
	explanation VARCHAR NOT NULL, 
	check_json VARCHAR NOT NULL, 
	attempts INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	finished_at DATETIME, 
	PRIMARY KEY (id), 
	FOREIGN KEY(author_id) REFERENCES serve_author (id), 
	FOREIGN KEY(bot_version_id) REFERENCES bot_version (id)
);
CREATE INDEX ix_serve_submission_author_id ON serve_submission (author_id);
CREATE TABLE serve_version (
	bot_version_id INTEGER NOT NULL, 
	bot_id INTEGER NOT NULL, 
	author_id INTEGER NOT NULL, 
	state VARCHAR NOT NULL, 
	activated_at DATETIME NOT NULL, 
	PRIMARY KEY (bot_version_id), 
	FOREIGN KEY(bot_version_id) REFERENCES bot_version (id), 
	FOREIGN KEY(bot_id) REFERENCES bot (id), 
	FOREIGN KEY(author_id) REFERENCES serve_author (id)
);
CREATE INDEX ix_serve_version_bot_id ON serve_version (bot_id);
CREATE INDEX ix_serve_version_author_id ON serve_version (author_id);
