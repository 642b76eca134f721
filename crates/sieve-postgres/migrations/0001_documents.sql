-- The user's files of a team gateway, one row each: config.json,
-- profiles/<name>.json, approvals.json, hosts.json. `body` is the file's
-- text exactly, so the same parser and the same checks read it as read a
-- file; `previous` is the text before the last change (a file's .bak);
-- `version` counts the changes. Every change tells the replicas on the
-- channel sieve_documents, with the document's key.
CREATE TABLE sieve_documents (
    key        text PRIMARY KEY,
    body       text NOT NULL,
    previous   text,
    version    bigint NOT NULL DEFAULT 1,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION sieve_documents_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('sieve_documents', COALESCE(NEW.key, OLD.key));
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER sieve_documents_changed
    AFTER INSERT OR UPDATE OR DELETE ON sieve_documents
    FOR EACH ROW EXECUTE FUNCTION sieve_documents_changed();
