"""What the tests share: builders, programs, terminals, servers and stand-ins (no tests here)."""
