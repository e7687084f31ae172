"""Pure domain: task states, error kinds, retry policy, batch parsing, run contract. No I/O, no Qt."""
