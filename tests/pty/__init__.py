"""The installed askcli at a real terminal (a pty driven with pexpect, or an SSH session)."""
