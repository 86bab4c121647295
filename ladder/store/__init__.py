"""The database: tables, opening and migrations, and the read-only index of submitted bots."""
