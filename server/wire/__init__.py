"""The JSON the server sends: one TypedDict per shape (`payloads`) and the per-viewer update of
an event (`updates`)."""
