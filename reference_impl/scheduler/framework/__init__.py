"""The scheduling framework: statuses, extension points, cycle state, queue and runtime."""
