CREATE TABLE state_keys (
    key_id      integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    secret      bytea NOT NULL CHECK (length(secret) OPERATOR(pg_catalog.=) 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    retired_at  timestamptz
);
CREATE UNIQUE INDEX state_keys_one_active ON state_keys ((true)) WHERE retired_at IS NULL;
COMMENT ON TABLE state_keys IS 'HMAC keys for requestState; one active, retired ones verify until pruned. Readable by the extension owner only';

CREATE TABLE spent_states (
    nonce       text PRIMARY KEY,
    expires_at  timestamptz NOT NULL,
    spent_at    timestamptz NOT NULL DEFAULT now(),
    outcome     text NOT NULL CHECK (outcome IN ('accept', 'decline', 'stale'))
);
CREATE INDEX spent_states_expires_at ON spent_states (expires_at);
COMMENT ON TABLE spent_states IS 'One row per requestState nonce that has been used up; prunable once expired';

-- A cancel spends nothing, so one state could be cancelled any number of
-- times: it is audited the first time only.  Pruned with spent_states.
CREATE TABLE cancelled_states (
    nonce         text PRIMARY KEY,
    expires_at    timestamptz NOT NULL,
    cancelled_at  timestamptz NOT NULL
);
CREATE INDEX cancelled_states_expires_at ON cancelled_states (expires_at);
COMMENT ON TABLE cancelled_states IS 'One row per requestState nonce whose cancel has been audited; prunable once expired';

-- The first key, so the extension works as soon as it is created.
INSERT INTO state_keys (secret) VALUES (_random_bytes(32));
