"""Benchmarks: each module runs alone as `python -m benchmarks.<name>` and prints a table
comparing this project against a named peer measured in the same run."""
