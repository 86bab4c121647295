"""Who sits at a table: bot references parsed (``botref``), turned into seat players (``players``) or rated bot
versions (``roster``), and submitted bots checked and registered (``botstore``)."""
