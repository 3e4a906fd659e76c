BEGIN;

-- Hand-written: what wakes GraphQL subscriptions of the change feed, in every server process
-- (src/modules/changes/README.md, "Subscriptions"). It notifies at commit, and only then. Writes
-- themselves notify nothing: a NOTIFY takes PostgreSQL's notification queue lock at commit, which
-- would serialise every writing transaction's commit; processes with subscribers look for
-- unsequenced changes instead (changes.listener.ts).

-- The sequencer gave changes their positions: one notification per client account,
-- '<client_account_id>:<highest position>', for the subscribers of that account to read on from.
CREATE FUNCTION notify_changes_sequenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('changes_sequenced', s.client_account_id || ':' || max(s.position))
     FROM sequenced s WHERE s.position IS NOT NULL GROUP BY s.client_account_id;
  RETURN NULL;
END
$$;
CREATE TRIGGER "changes_sequenced" AFTER UPDATE ON "changes" REFERENCING NEW TABLE AS sequenced FOR EACH STATEMENT EXECUTE FUNCTION notify_changes_sequenced();

COMMIT;
