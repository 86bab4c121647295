"""Ratings: the TrueSkill maths (``trueskill_model``, no database), their persistence, the overall table
across pools, pool identity and how sure a leaderboard is (``certainty``). See ``docs/ratings.md``."""
