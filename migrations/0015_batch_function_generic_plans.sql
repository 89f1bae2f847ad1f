-- The batch function's statements planned once a connection, not at every call
-- (docs/benchmarks.md, "Generic plans for the batch function"). PL/pgSQL caches each
-- statement's plan, but a statement with parameters is planned anew for its values until
-- a generic plan looks no dearer than those; with sequential scans, hash and merge joins
-- off (set on the function in 0013) every generic plan carried their penalty in its cost,
-- so each call planned each of its statements again: some 30 % of PostgreSQL's CPU at a
-- low rate, where each batch holds one move. Every row the function touches is found by
-- its key whatever the parameters' values, so the generic plan is the custom one.
-- Never edit this file once it has shipped: add a new numbered file instead.
ALTER FUNCTION spelbord_store_batch(
    uuid[], integer[], smallint[], text[], text[], timestamptz[], text[], integer[], bigint[],
    jsonb, jsonb, jsonb, jsonb
) SET plan_cache_mode = force_generic_plan;
