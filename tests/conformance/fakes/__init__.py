"""Small fake adapters the runner's own tests drive (not conforming implementations)."""
