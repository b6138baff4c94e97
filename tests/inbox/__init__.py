"""The inbox: its queue and both its sides, on SQLite and on PostgreSQL."""
