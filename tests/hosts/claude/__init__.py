"""askcli claude: hosting Claude Code (its lines in process, a stand-in executable)."""
