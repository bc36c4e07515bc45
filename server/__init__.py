"""The only package that wires domain and eventstore: app, sockets, REST, service, CLI."""
