-- The lobby (docs/architecture.md, "The lobby"): open seeks and listed tables, kept in
-- PostgreSQL so that every node sees them, pairing done by one function under a lock per
-- pool, and each pairing announced to every node by NOTIFY on the channel `spelbord_lobby`
-- (the lists themselves are read by each node once a second, not notified: a NOTIFY at
-- every seek would make every seek's commit wait for the one lock notifying commits take).
-- Never edit this file once it has shipped: add a new numbered file instead.

-- A person waiting for an opponent in one pool (a game and a clock). A seek lives while
-- its owner has a lobby connection to its node (and a short grace): the node deletes it
-- then, and the living nodes delete the seeks of a dead one. Paired or cancelled seeks are
-- deleted, never kept: the table made by pairing is the record.
CREATE TABLE lobby_seeks (
    id          uuid        PRIMARY KEY,
    pool        text        NOT NULL,                 -- 'gomoku/5+3', ...
    rated       boolean     NOT NULL,
    owner_key   bytea       NOT NULL,                 -- the SHA-256 of the owner's token
    name        text        NOT NULL,
    rating      integer     NOT NULL,                 -- the owner's rating in the game when seeking
    range_min   integer,                              -- only people rated within may pair
    range_max   integer,
    bots_ok     boolean     NOT NULL DEFAULT false,   -- Bughouse: agrees to play with bots
    address     text,                                 -- the owner's address, for lobby.refuse_same_address
    node        integer     NOT NULL,                 -- the node holding the owner's connection
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- One open seek per person and pool.
CREATE UNIQUE INDEX lobby_seeks_owner_pool ON lobby_seeks (owner_key, pool);
-- The oldest compatible seek first.
CREATE INDEX lobby_seeks_waiting ON lobby_seeks (pool, rated, created_at, id);
CREATE INDEX lobby_seeks_node ON lobby_seeks (node);

-- What each listed table shows in the lobby, written by the node serving it when its seats
-- or its game change (and its spectator count, at most once a second). A row of a dead node
-- is not shown, and is deleted by the living.
CREATE TABLE lobby_listings (
    table_id    text        PRIMARY KEY REFERENCES tables (id) ON DELETE CASCADE,
    node        integer     NOT NULL,
    open        boolean     NOT NULL,                 -- a seat is free (and no game in play)
    playing     boolean     NOT NULL,                 -- a game is in play
    rating      integer,                              -- the mean of its people's ratings (rated tables)
    spectators  integer     NOT NULL,
    entry       jsonb       NOT NULL,                 -- the lobby's view of the table
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX lobby_listings_node ON lobby_listings (node);

-- A person's name, made distinct among the people already chosen for a table.
CREATE FUNCTION spelbord_lobby_name(wanted text, taken text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    candidate text := wanted;
    n integer := 2;
BEGIN
    WHILE lower(candidate) = ANY (SELECT lower(t) FROM unnest(taken) AS t) LOOP
        candidate := wanted || ' (' || n || ')';
        n := n + 1;
    END LOOP;
    RETURN candidate;
END;
$$;

-- Creates the table for people just paired (or a person with the computer): the table,
-- its lease held by nobody (the first node asked for it serves it), and every seat taken.
-- `people` are (key, name) in seat order from seat 0; `bots` fill the seats after them.
CREATE FUNCTION spelbord_lobby_table(
    p_table text, p_game text, p_settings jsonb, p_keys bytea[], p_names text[], p_bots jsonb
) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tables (id, game, settings) VALUES (p_table, p_game, p_settings);
    INSERT INTO table_leases (table_id, node, epoch) VALUES (p_table, NULL, 0);
    INSERT INTO seats (table_id, seat, player_key, name)
    SELECT p_table, (k - 1)::smallint, p_keys[k], p_names[k]
      FROM generate_subscripts(p_keys, 1) AS k;
    INSERT INTO seats (table_id, seat, name, bot)
    SELECT p_table, b.seat, b.name, b.bot
      FROM jsonb_to_recordset(p_bots) AS b(seat smallint, name text, bot text);
END;
$$;

-- A seek: pairs it with the oldest compatible open seeks of its pool (one for two-player
-- games, three for Bughouse) and creates their table, or stores it to wait. With `target`,
-- an `accept` of that one seek (two-player pools). One call, one transaction, under a lock
-- per pool: two seekers of one pool are paired with each other exactly once, whichever
-- nodes they came through.
--
-- Answers {"status": "paired", "seat": n, "seats": [...]}, {"status": "seeking", "seek":
-- {...}} (new, or the one the person already had in the pool), or {"status": "gone" |
-- "own" | "out_of_range" | "same_address"} for an accept that cannot be.
CREATE FUNCTION spelbord_lobby_seek(
    p_seek uuid, p_pool text, p_rated boolean, p_key bytea, p_name text, p_game text,
    p_min integer, p_max integer, p_bots_ok boolean, p_address text, p_node integer,
    p_players integer, p_target uuid, p_table text, p_settings jsonb, p_refuse_same_address boolean
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    my_rating integer;
    own lobby_seeks;
    target lobby_seeks;
    candidate lobby_seeks;
    chosen lobby_seeks[] := '{}';
    other lobby_seeks;
    fits boolean;
    keys bytea[];
    names text[];
    ids uuid[];
BEGIN
    PERFORM pg_advisory_xact_lock(1397771340, hashtext(p_pool));
    SELECT coalesce((SELECT round(r.rating)::integer FROM ratings r
                      WHERE r.player_key = p_key AND r.game = p_game), 1500)
      INTO my_rating;

    SELECT * INTO own FROM lobby_seeks WHERE owner_key = p_key AND pool = p_pool;
    IF p_target IS NOT NULL THEN
        IF own.id = p_target THEN
            RETURN jsonb_build_object('status', 'own');
        END IF;
        SELECT * INTO target FROM lobby_seeks WHERE id = p_target AND pool = p_pool;
        IF target.id IS NULL THEN
            RETURN jsonb_build_object('status', 'gone');
        END IF;
        IF target.owner_key = p_key THEN
            RETURN jsonb_build_object('status', 'own');
        END IF;
        IF target.rated <> p_rated
           OR my_rating < coalesce(target.range_min, my_rating) OR my_rating > coalesce(target.range_max, my_rating)
           OR target.rating < coalesce(p_min, target.rating) OR target.rating > coalesce(p_max, target.rating) THEN
            RETURN jsonb_build_object('status', 'out_of_range');
        END IF;
        IF p_refuse_same_address AND target.address = p_address THEN
            RETURN jsonb_build_object('status', 'same_address');
        END IF;
    ELSIF own.id IS NOT NULL THEN
        RETURN jsonb_build_object('status', 'seeking', 'seek', to_jsonb(own) - 'owner_key' - 'address' - 'node');
    END IF;

    -- The oldest compatible seeks, each within the ranges of the seeker and of those
    -- already chosen (and they within theirs), from a living node.
    FOR candidate IN
        SELECT * FROM lobby_seeks s
         WHERE s.pool = p_pool AND s.rated = p_rated AND s.owner_key <> p_key
           AND (p_target IS NULL OR p_players > 2 OR s.id = p_target)
         ORDER BY s.created_at, s.id
         LIMIT 200
         FOR UPDATE SKIP LOCKED
    LOOP
        fits := my_rating BETWEEN coalesce(candidate.range_min, my_rating) AND coalesce(candidate.range_max, my_rating)
            AND candidate.rating BETWEEN coalesce(p_min, candidate.rating) AND coalesce(p_max, candidate.rating)
            AND NOT (p_refuse_same_address AND candidate.address = p_address);
        IF fits THEN
            FOREACH other IN ARRAY chosen LOOP
                fits := fits
                    AND other.rating BETWEEN coalesce(candidate.range_min, other.rating) AND coalesce(candidate.range_max, other.rating)
                    AND candidate.rating BETWEEN coalesce(other.range_min, candidate.rating) AND coalesce(other.range_max, candidate.rating)
                    AND NOT (p_refuse_same_address AND candidate.address = other.address);
            END LOOP;
        END IF;
        IF fits AND candidate.node <> p_node AND NOT spelbord_node_alive(candidate.node) THEN
            fits := false;
        END IF;
        IF fits THEN
            chosen := chosen || candidate;
            EXIT WHEN cardinality(chosen) = p_players - 1;
        END IF;
    END LOOP;

    IF cardinality(chosen) = p_players - 1 THEN
        -- Seats in the order of waiting: the oldest seek sits first, the seeker last (the
        -- table draws the seats by lot when the game starts).
        keys := '{}'; names := '{}'; ids := '{}';
        FOREACH other IN ARRAY chosen LOOP
            keys := keys || other.owner_key;
            names := names || spelbord_lobby_name(other.name, names);
            ids := ids || other.id;
        END LOOP;
        keys := keys || p_key;
        names := names || spelbord_lobby_name(p_name, names);
        ids := ids || p_seek;
        PERFORM spelbord_lobby_table(p_table, p_game, p_settings, keys, names, '[]'::jsonb);
        DELETE FROM lobby_seeks WHERE id = ANY (ids) OR (owner_key = p_key AND pool = p_pool);
        PERFORM pg_notify('spelbord_lobby', jsonb_build_object(
            'paired', p_table,
            'seeks', (SELECT jsonb_agg(jsonb_build_object('id', ids[k], 'seat', k - 1))
                        FROM generate_subscripts(ids, 1) AS k))::text);
        RETURN jsonb_build_object('status', 'paired', 'seat', p_players - 1, 'table', p_table);
    END IF;

    IF p_target IS NOT NULL AND p_players = 2 THEN
        -- The challenge was taken meanwhile (locked by its pairing) or its node died.
        RETURN jsonb_build_object('status', 'gone');
    END IF;
    INSERT INTO lobby_seeks (id, pool, rated, owner_key, name, rating, range_min, range_max, bots_ok, address, node)
    VALUES (p_seek, p_pool, p_rated, p_key, p_name, my_rating, p_min, p_max, p_bots_ok, p_address, p_node)
    RETURNING * INTO own;
    RETURN jsonb_build_object('status', 'seeking', 'seek', to_jsonb(own) - 'owner_key' - 'address' - 'node');
END;
$$;

-- `play_bots`: the owner's seek (and, in Bughouse, the other seeks of its pool that agreed
-- to play with bots, oldest first) become a table with the computer in the other seats.
-- `settings` holds the table's settings for 1, 2, ... people (index 0 for one person), and
-- `bots` the bot seats' (seat, name, bot) from the last seat down. Answers {"status":
-- "paired", "seat": n, "table": id} or {"status": "gone" | "not_yours"}.
CREATE FUNCTION spelbord_lobby_play_bots(
    p_seek uuid, p_key bytea, p_node integer, p_players integer, p_table text, p_game text,
    p_settings jsonb, p_bots jsonb
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    own lobby_seeks;
    other lobby_seeks;
    keys bytea[] := '{}';
    names text[] := '{}';
    ids uuid[] := '{}';
    people integer;
BEGIN
    SELECT * INTO own FROM lobby_seeks WHERE id = p_seek;
    IF own.id IS NULL THEN
        RETURN jsonb_build_object('status', 'gone');
    END IF;
    IF own.owner_key <> p_key THEN
        RETURN jsonb_build_object('status', 'not_yours');
    END IF;
    PERFORM pg_advisory_xact_lock(1397771340, hashtext(own.pool));
    SELECT * INTO own FROM lobby_seeks WHERE id = p_seek FOR UPDATE;
    IF own.id IS NULL THEN
        RETURN jsonb_build_object('status', 'gone');
    END IF;
    FOR other IN
        SELECT * FROM lobby_seeks s
         WHERE s.pool = own.pool AND s.bots_ok AND s.owner_key <> p_key
           AND (s.node = p_node OR spelbord_node_alive(s.node))
         ORDER BY s.created_at, s.id
         LIMIT p_players - 2
         FOR UPDATE SKIP LOCKED
    LOOP
        keys := keys || other.owner_key;
        names := names || spelbord_lobby_name(other.name, names);
        ids := ids || other.id;
    END LOOP;
    keys := keys || own.owner_key;
    names := names || spelbord_lobby_name(own.name, names);
    ids := ids || own.id;
    people := cardinality(keys);
    PERFORM spelbord_lobby_table(
        p_table, p_game, p_settings -> (people - 1), keys, names,
        coalesce((SELECT jsonb_agg(b) FROM jsonb_array_elements(p_bots) WITH ORDINALITY AS e(b, n)
                   WHERE n <= p_players - people), '[]'::jsonb));
    DELETE FROM lobby_seeks WHERE id = ANY (ids);
    PERFORM pg_notify('spelbord_lobby', jsonb_build_object(
        'paired', p_table,
        'seeks', (SELECT jsonb_agg(jsonb_build_object('id', ids[k], 'seat', k - 1))
                    FROM generate_subscripts(ids, 1) AS k))::text);
    RETURN jsonb_build_object('status', 'paired', 'seat', people - 1, 'table', p_table);
END;
$$;
