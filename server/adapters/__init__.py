"""The edge between the use cases and the outside: the match repository and its cache, presence,
leases, publishers, the cluster over Redis, the store's feed and checkpoints, the read workers,
the LAN announcement."""
