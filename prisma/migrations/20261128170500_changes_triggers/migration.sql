BEGIN;

-- Hand-written: the transactional outbox (src/modules/changes/README.md). Every insert, update and
-- delete of a published table records one row in "changes", in the writing transaction, whatever
-- wrote it (Prisma, raw SQL, a job). The tables and their arguments are CHANGE_SOURCES of
-- src/modules/changes/changes.rules.ts (test/changes/coverage.test.ts compares them).
-- Arguments: the resource name, then semantic events '<event>:set:<column>' (the column went from
-- null to a value) or '<event>:changed:<column>' (its value changed); the first that holds names the type.
-- actor_id: the row's updated_by_id (an update) or created_by_id (an insert) where the table has them.
CREATE FUNCTION record_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r jsonb;
  o jsonb;
  act text;
  kind text;
  rule text[];
  actor text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    r := to_jsonb(OLD);
    act := 'deleted';
  ELSIF TG_OP = 'INSERT' THEN
    r := to_jsonb(NEW);
    act := 'created';
    actor := r->>'created_by_id';
  ELSE
    r := to_jsonb(NEW);
    o := to_jsonb(OLD);
    IF r = o THEN
      RETURN NULL; -- an update that changed nothing is no change
    END IF;
    act := 'updated';
    actor := COALESCE(r->>'updated_by_id', r->>'created_by_id');
  END IF;
  kind := act;
  IF TG_OP <> 'DELETE' THEN
    FOR i IN 1 .. TG_NARGS - 1 LOOP
      rule := string_to_array(TG_ARGV[i], ':');
      IF (rule[2] = 'set' AND r->>rule[3] IS NOT NULL AND (o IS NULL OR o->>rule[3] IS NULL))
         OR (rule[2] = 'changed' AND o IS NOT NULL AND (o->rule[3]) IS DISTINCT FROM (r->rule[3])) THEN
        kind := rule[1];
        EXIT;
      END IF;
    END LOOP;
  END IF;
  INSERT INTO changes (client_account_id, type, resource, resource_id, action, actor_id)
  VALUES (
    CASE WHEN TG_TABLE_NAME = 'client_accounts' THEN (r->>'id')::int ELSE (r->>'client_account_id')::int END,
    TG_ARGV[0] || '.' || kind, TG_ARGV[0], r->>'id', act, actor::int
  );
  RETURN NULL;
END
$$;

CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "bank_accounts" FOR EACH ROW EXECUTE FUNCTION record_change('bank_account');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "bank_statements" FOR EACH ROW EXECUTE FUNCTION record_change('bank_statement');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "bank_transactions" FOR EACH ROW EXECUTE FUNCTION record_change('bank_transaction');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "bank_transaction_questions" FOR EACH ROW EXECUTE FUNCTION record_change('bank_transaction_question');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "bank_transaction_statements" FOR EACH ROW EXECUTE FUNCTION record_change('bank_transaction_statement');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "billing_add_ons" FOR EACH ROW EXECUTE FUNCTION record_change('billing_add_on');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "business_partners" FOR EACH ROW EXECUTE FUNCTION record_change('business_partner');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "client_accounts" FOR EACH ROW EXECUTE FUNCTION record_change('client_account');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "departments" FOR EACH ROW EXECUTE FUNCTION record_change('department');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "assets" FOR EACH ROW EXECUTE FUNCTION record_change('asset');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "tags" FOR EACH ROW EXECUTE FUNCTION record_change('tag');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "documents" FOR EACH ROW EXECUTE FUNCTION record_change('document');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "payment_requests" FOR EACH ROW EXECUTE FUNCTION record_change('payment_request');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "equity_transactions" FOR EACH ROW EXECUTE FUNCTION record_change('equity_transaction');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "files" FOR EACH ROW EXECUTE FUNCTION record_change('file');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "integration_settings" FOR EACH ROW EXECUTE FUNCTION record_change('integration_setting');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "invitations" FOR EACH ROW EXECUTE FUNCTION record_change('invitation');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "item_collections" FOR EACH ROW EXECUTE FUNCTION record_change('item_collection');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "item_collection_entries" FOR EACH ROW EXECUTE FUNCTION record_change('item_collection_entry');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "items" FOR EACH ROW EXECUTE FUNCTION record_change('item');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "journal_entries" FOR EACH ROW EXECUTE FUNCTION record_change('journal_entry', 'posted:set:posted_at', 'cancelled:set:cancelled');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "accounts" FOR EACH ROW EXECUTE FUNCTION record_change('ledger_account');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "memberships" FOR EACH ROW EXECUTE FUNCTION record_change('membership');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "notification_settings" FOR EACH ROW EXECUTE FUNCTION record_change('notification_setting');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "payroll_contracts" FOR EACH ROW EXECUTE FUNCTION record_change('payroll_contract');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "payroll_tax_cards" FOR EACH ROW EXECUTE FUNCTION record_change('payroll_tax_card');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "payroll_garnishments" FOR EACH ROW EXECUTE FUNCTION record_change('payroll_garnishment');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "projects" FOR EACH ROW EXECUTE FUNCTION record_change('project');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "provider_relationships" FOR EACH ROW EXECUTE FUNCTION record_change('provider_relationship');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "reconciliations" FOR EACH ROW EXECUTE FUNCTION record_change('reconciliation');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "tasks" FOR EACH ROW EXECUTE FUNCTION record_change('task');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "tax_codes" FOR EACH ROW EXECUTE FUNCTION record_change('tax_code');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "tax_returns" FOR EACH ROW EXECUTE FUNCTION record_change('tax_return');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "vouchers" FOR EACH ROW EXECUTE FUNCTION record_change('voucher', 'status_changed:changed:status');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "voucher_collections" FOR EACH ROW EXECUTE FUNCTION record_change('voucher_collection');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "voucher_questions" FOR EACH ROW EXECUTE FUNCTION record_change('voucher_question');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "voucher_statements" FOR EACH ROW EXECUTE FUNCTION record_change('voucher_statement');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "worker_tasks" FOR EACH ROW EXECUTE FUNCTION record_change('worker_task');
CREATE TRIGGER "changes_outbox" AFTER INSERT OR UPDATE OR DELETE ON "yearly_account_submissions" FOR EACH ROW EXECUTE FUNCTION record_change('yearly_account_submission');

COMMIT;
