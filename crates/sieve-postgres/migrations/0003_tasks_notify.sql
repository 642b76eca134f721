-- Every write of the task ledger tells the replicas on the channel
-- sieve_tasks, once per statement (a bulk insert is one notice), so a
-- host following tasks on one replica hears of entries another made.
CREATE FUNCTION sieve_tasks_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('sieve_tasks', '');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER sieve_tasks_changed
    AFTER INSERT OR UPDATE OR DELETE ON sieve_tasks
    FOR EACH STATEMENT EXECUTE FUNCTION sieve_tasks_changed();
