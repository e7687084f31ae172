"""MediaDesk: batch text generation across web (browser) and API models, two lanes, one durable task table."""

__version__ = "0.1.0"
