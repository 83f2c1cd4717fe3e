"""Playing in the terminal: the game session (shared), the full-screen app and the plain mode."""
