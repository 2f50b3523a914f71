"""In-repo runs load the garhwal plugin from the checkout (the installed entry point does
the same for ``pip install``); the guard keeps it from registering twice."""

pytest_plugins: list[str] = []
