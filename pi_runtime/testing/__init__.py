"""Test and benchmark support that ships with the runtime (loopback server)."""
