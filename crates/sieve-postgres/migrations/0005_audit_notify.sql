-- The audit's writes tell the replicas too, on the ledger's channel
-- (the app shows both from the same database), once per statement.
CREATE TRIGGER sieve_audit_changed
    AFTER INSERT OR UPDATE OR DELETE ON sieve_audit
    FOR EACH STATEMENT EXECUTE FUNCTION sieve_tasks_changed();
