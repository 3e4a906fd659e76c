-- Rate-limit counters need no crash safety: after a crash (or on a promoted standby) the table is
-- empty and every window starts afresh, which at worst grants one extra window. Unlogged, the
-- counter upsert that every API request now makes commits without waiting for a WAL flush.
ALTER TABLE "rate_limit_counters" SET UNLOGGED;
