"""One module of Click commands per area; each command only parses options and calls the library.

``common`` holds what every command shares (exit codes, ``--exercises-dir``, colour, loading an
exercise with errors a user can act on) and ``progress`` the sign of life on standard error.
``grader.commands.cli`` imports a command's module only when that command runs.
"""
