"""`ladder report`: the database as a static website (leaderboards, bot pages, head-to-head, replays)."""
