"""DRA benchmarks: scheduler throughput with claims, and requeue cost per capacity event."""
