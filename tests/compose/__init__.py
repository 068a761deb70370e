"""Running docker/compose*.yaml for real under podman and Docker (tests/compose/engine.py)."""
