"""The JSON the server sends: one TypedDict per shape (`payloads`), and the client's languages
(`languages`). The per-viewer update of an event is `server.readmodels.updates`."""
