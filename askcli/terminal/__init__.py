"""The terminal conversation: streams, screens, rendering, signals, notifications."""
