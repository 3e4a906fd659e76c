BEGIN;

-- Hand-written: what wakes GraphQL subscriptions of the change feed, in every server process
-- (src/modules/changes/README.md, "Subscriptions"). Both notify at commit, and only then.

-- A write recorded changes (the outbox inserted into "changes"): a process with subscribers runs the
-- sequencer now rather than at its next minute. One notification per transaction (PostgreSQL folds
-- identical ones), with no payload: the sequencer reads what is pending itself.
CREATE FUNCTION notify_changes_pending() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('changes_pending', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER "changes_pending" AFTER INSERT ON "changes" FOR EACH STATEMENT EXECUTE FUNCTION notify_changes_pending();

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
