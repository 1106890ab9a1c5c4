"""The conformance runner: drives any PROTOCOL.md adapter through vector files.

The package is split one concept per module so each piece can be tested alone: ``client`` speaks
the line protocol to a child process, ``matcher`` implements the subset rule, ``vectors`` and
``skips`` read the inputs, ``runner`` ties them together, and ``report``/``jsonreport``/``junit``/
``coverage`` render the results. ``cli.main`` is the ``session-toolset conform`` entry point.
"""
