"""askcli acp: the ACP client, against the scripted agent of tests/peers/acp_agent.py."""
