"""The server's doors: HTTP routes and pages, Socket.IO handlers, the schemas of every inbound
message, body limits, allowed origins and hosts, fair use, the protocol version and health.
Everything here parses, refuses with a structured error, and hands a valid command to
`server.service` (docs/architecture.md § Rooms)."""
