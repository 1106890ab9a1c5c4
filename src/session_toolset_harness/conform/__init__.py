"""The conformance runner: drives any PROTOCOL.md adapter through vector files (`cli.main` is
``session-toolset conform``)."""
