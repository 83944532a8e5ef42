-- What FerretDB 1.24 on PostgreSQL lacks for equality lookups, set up in the
-- engine itself (docs/architecture.md, "The local engine").
--
-- FerretDB pushes an equality filter down as `_jsonb -> 'field' @> value`, but
-- the indexes it creates are btree indexes on `(_jsonb -> 'field')`, which
-- `@>` cannot use: every find by `_id` scanned the whole table (12 ms at 20,000
-- documents, growing with the table). A GIN index on the same expression
-- serves `@>`. This file makes PostgreSQL add one beside the leading key of
-- every index FerretDB creates (the `_id` index of every collection
-- included), now and for every index created later, and plans each statement
-- with its parameters (FerretDB's prepared statements otherwise switch to a
-- generic plan, whose `_jsonb -> $1` no expression index can serve).
-- Idempotent: scripts/stack.sh runs it at every start.

ALTER DATABASE ferretdb SET plan_cache_mode = force_custom_plan;

CREATE OR REPLACE FUNCTION dfc_equality_index(btree_index oid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  leading_key text := pg_get_indexdef(btree_index, 1, true);
  table_oid oid;
  gin_name text;
BEGIN
  SELECT indrelid INTO table_oid FROM pg_index WHERE indexrelid = btree_index;
  IF leading_key !~ '^\(_jsonb -> ''[^'']+''::text\)$'
     OR (SELECT amname FROM pg_am JOIN pg_class ON pg_class.relam = pg_am.oid WHERE pg_class.oid = btree_index) <> 'btree'
     OR EXISTS (
       SELECT 1 FROM pg_index JOIN pg_class ON pg_class.oid = pg_index.indexrelid JOIN pg_am ON pg_am.oid = pg_class.relam
       WHERE pg_index.indrelid = table_oid AND pg_am.amname = 'gin' AND pg_get_indexdef(pg_index.indexrelid, 1, true) = leading_key
     ) THEN
    RETURN;
  END IF;
  gin_name := left((SELECT relname FROM pg_class WHERE oid = btree_index), 55) || '_eq';
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin (%s)', gin_name, table_oid::regclass, leading_key);
END
$$;

CREATE OR REPLACE FUNCTION dfc_equality_index_on_create() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  created record;
BEGIN
  FOR created IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE INDEX' AND object_type = 'index' LOOP
    PERFORM dfc_equality_index(created.objid);
  END LOOP;
END
$$;

DROP EVENT TRIGGER IF EXISTS dfc_equality_index_on_create;
CREATE EVENT TRIGGER dfc_equality_index_on_create ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION dfc_equality_index_on_create();

-- Indexes created before this file was first run.
SELECT dfc_equality_index(indexrelid)
FROM pg_index JOIN pg_class ON pg_class.oid = pg_index.indexrelid JOIN pg_am ON pg_am.oid = pg_class.relam
WHERE pg_am.amname = 'btree' AND pg_get_indexdef(indexrelid, 1, true) LIKE '(_jsonb -> %';
