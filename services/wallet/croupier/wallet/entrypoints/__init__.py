"""Entry points: gRPC servicer, Kafka request consumer, finance exports."""
