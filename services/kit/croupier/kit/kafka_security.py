"""How every Kafka client of a process authenticates and encrypts: one setting, two clients.

A process talks to Kafka through two libraries: librdkafka (`confluent-kafka`, the kit's
`AckedProducer`) sends, aiokafka consumes, joins groups and administers topics. Both must
use the same listener, so both are configured from one `KafkaSecurity`, read from the
environment (`CROUPIER_KAFKA_*`, below) by every service that reaches Kafka: the event bus
(`croupier.kit.bus.kafka`) and the table host's command log take it by default.

- `PLAINTEXT` (the default): a local or a trusted network.
- `SSL`: TLS; the broker's certificate is checked against `CROUPIER_KAFKA_SSL_CA_FILE` (the
  system's CAs without it); with a client certificate and key, mutual TLS (Strimzi's `tls`
  authentication).
- `SASL_SSL` / `SASL_PLAINTEXT`: a user name and password (`PLAIN`, `SCRAM-SHA-256` or
  `SCRAM-SHA-512`, Strimzi's `scram-sha-512`), over TLS or not. The password comes from a
  Secret; it is never logged (`repr` hides it).
"""

from __future__ import annotations

import dataclasses
import ssl
from collections.abc import Mapping
from typing import Any

from croupier.kit.settings import SettingsError, choice, env, load

__all__ = ["PROTOCOLS", "SASL_MECHANISMS", "KafkaSecurity"]

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")


@dataclasses.dataclass(frozen=True)
class KafkaSecurity:
    protocol: str = env(
        "CROUPIER_KAFKA_SECURITY_PROTOCOL",
        choice(*PROTOCOLS),
        "PLAINTEXT",
        doc="how the Kafka clients connect",
    )
    sasl_mechanism: str = env(
        "CROUPIER_KAFKA_SASL_MECHANISM", choice(*SASL_MECHANISMS), "SCRAM-SHA-512"
    )
    sasl_username: str = env("CROUPIER_KAFKA_SASL_USERNAME", str, "", doc="SASL user")
    sasl_password: str = dataclasses.field(
        default="",
        repr=False,
        metadata=env("CROUPIER_KAFKA_SASL_PASSWORD", str, "", doc="SASL password").metadata,
    )
    ssl_ca_file: str = env(
        "CROUPIER_KAFKA_SSL_CA_FILE", str, "", doc="PEM file of the CA that signed the brokers"
    )
    ssl_cert_file: str = env(
        "CROUPIER_KAFKA_SSL_CERT_FILE", str, "", doc="PEM client certificate (mutual TLS)"
    )
    ssl_key_file: str = env(
        "CROUPIER_KAFKA_SSL_KEY_FILE", str, "", doc="PEM client key (mutual TLS)"
    )

    def __post_init__(self) -> None:
        problems = []
        if self.sasl and not (self.sasl_username and self.sasl_password):
            problems.append(
                f"CROUPIER_KAFKA_SECURITY_PROTOCOL={self.protocol} needs "
                "CROUPIER_KAFKA_SASL_USERNAME and CROUPIER_KAFKA_SASL_PASSWORD"
            )
        if bool(self.ssl_cert_file) != bool(self.ssl_key_file):
            problems.append(
                "CROUPIER_KAFKA_SSL_CERT_FILE and CROUPIER_KAFKA_SSL_KEY_FILE go together"
            )
        if (self.ssl_ca_file or self.ssl_cert_file) and not self.tls:
            problems.append(
                f"TLS files are set but CROUPIER_KAFKA_SECURITY_PROTOCOL={self.protocol} "
                "does not use TLS (SSL or SASL_SSL)"
            )
        if problems:
            raise SettingsError("invalid settings: " + "; ".join(problems))

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> KafkaSecurity:
        """The process's setting (`SettingsError` naming every bad variable)."""
        return load(cls, environ)

    @property
    def tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def sasl(self) -> bool:
        return self.protocol.startswith("SASL_")

    def librdkafka(self) -> dict[str, str]:
        """Configuration properties for a `confluent_kafka` client."""
        options = {"security.protocol": self.protocol.lower()}
        if self.sasl:
            options |= {
                "sasl.mechanisms": self.sasl_mechanism,
                "sasl.username": self.sasl_username,
                "sasl.password": self.sasl_password,
            }
        if self.ssl_ca_file:
            options["ssl.ca.location"] = self.ssl_ca_file
        if self.ssl_cert_file:
            options["ssl.certificate.location"] = self.ssl_cert_file
            options["ssl.key.location"] = self.ssl_key_file
        return options

    def aiokafka(self) -> dict[str, Any]:
        """Keyword arguments for an aiokafka consumer or admin client."""
        options: dict[str, Any] = {"security_protocol": self.protocol}
        if self.sasl:
            options |= {
                "sasl_mechanism": self.sasl_mechanism,
                "sasl_plain_username": self.sasl_username,
                "sasl_plain_password": self.sasl_password,
            }
        if self.tls:
            options["ssl_context"] = self.ssl_context()
        return options

    def ssl_context(self) -> ssl.SSLContext:
        """Hostname checked, the CA file's certificates trusted (or the system's)."""
        from aiokafka.helpers import create_ssl_context

        context: ssl.SSLContext = create_ssl_context(
            cafile=self.ssl_ca_file or None,
            certfile=self.ssl_cert_file or None,
            keyfile=self.ssl_key_file or None,
        )
        return context
