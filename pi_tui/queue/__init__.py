"""The queued steering and follow-up messages shown while the agent runs."""
