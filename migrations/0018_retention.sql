-- Data retention (src/store/retention.rs; docs/operations.md, "Data retention"): old chat
-- lines, tables where no game ever started, and tables whose casual games all finished long
-- ago are deleted by one node at a time, in small batches. What the job needs to find them
-- without reading the hot tables whole:
-- Never edit this file once it has shipped: add a new numbered file instead.
--
-- Building the two indexes blocks writes to `chat_messages` and `tables` (new tables, chat
-- lines) while it runs: a second or so per million rows; run it at a quiet time.

-- Chat lines older than `retention.chat_days`, oldest first, found without reading the
-- others (one more index entry per chat line; chat is at most 30 lines a minute a player).
CREATE INDEX chat_messages_sent_at ON chat_messages (sent_at);

-- The sweep over tables walks them in the order they were made, a page at a time, from
-- where the last page stopped (several tables made in one batch share `created_at`: the id
-- breaks the tie). One more index entry per new table.
CREATE INDEX tables_created_at ON tables (created_at, id);

-- Where the sweep over tables stopped: the next round goes on from there, whichever node
-- runs it, so tables kept for good (rated games) are not read again at every round.
CREATE TABLE retention_sweeps (
    name          text        PRIMARY KEY,                 -- 'tables'
    after_created timestamptz NOT NULL DEFAULT '-infinity',
    after_id      text        NOT NULL DEFAULT '',
    updated_at    timestamptz NOT NULL DEFAULT now()
);
INSERT INTO retention_sweeps (name) VALUES ('tables');

-- Every table has a lease row, which a deletion locks (FOR UPDATE) and checks under the
-- lock, so that no node starts serving a table while it is being deleted. Tables made
-- before migration 0008 and never served since have none: they get one held by nobody
-- (epoch 0, as a table the lobby makes), taken when it was made.
INSERT INTO table_leases (table_id, node, epoch, acquired_at)
SELECT t.id, NULL, 0, t.created_at FROM tables t
 WHERE NOT EXISTS (SELECT 1 FROM table_leases l WHERE l.table_id = t.id);
