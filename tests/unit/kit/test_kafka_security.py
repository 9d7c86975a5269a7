"""KafkaSecurity: one CROUPIER_KAFKA_* setting, the same listener for librdkafka and aiokafka."""

from __future__ import annotations

import ssl

import pytest

from croupier.kit.kafka_security import KafkaSecurity
from croupier.kit.settings import SettingsError

SCRAM_TLS = {
    "CROUPIER_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
    "CROUPIER_KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
    "CROUPIER_KAFKA_SASL_USERNAME": "croupier-wallet",
    "CROUPIER_KAFKA_SASL_PASSWORD": "s3cret",
}


def test_plaintext_by_default() -> None:
    security = KafkaSecurity.from_environment({})
    assert security.librdkafka() == {"security.protocol": "plaintext"}
    assert security.aiokafka() == {"security_protocol": "PLAINTEXT"}


def test_scram_over_tls_configures_both_clients_alike() -> None:
    security = KafkaSecurity.from_environment(SCRAM_TLS)
    assert security.librdkafka() == {
        "security.protocol": "sasl_ssl",
        "sasl.mechanisms": "SCRAM-SHA-512",
        "sasl.username": "croupier-wallet",
        "sasl.password": "s3cret",
    }
    options = security.aiokafka()
    context = options.pop("ssl_context")
    assert options == {
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "croupier-wallet",
        "sasl_plain_password": "s3cret",
    }
    assert isinstance(context, ssl.SSLContext)
    assert context.check_hostname and context.verify_mode == ssl.CERT_REQUIRED


def test_mutual_tls_files_go_to_librdkafka() -> None:
    security = KafkaSecurity.from_environment(
        {
            "CROUPIER_KAFKA_SECURITY_PROTOCOL": "SSL",
            "CROUPIER_KAFKA_SSL_CA_FILE": "/etc/kafka/ca.crt",
            "CROUPIER_KAFKA_SSL_CERT_FILE": "/etc/kafka/user.crt",
            "CROUPIER_KAFKA_SSL_KEY_FILE": "/etc/kafka/user.key",
        }
    )
    assert security.librdkafka() == {
        "security.protocol": "ssl",
        "ssl.ca.location": "/etc/kafka/ca.crt",
        "ssl.certificate.location": "/etc/kafka/user.crt",
        "ssl.key.location": "/etc/kafka/user.key",
    }


def test_the_password_never_appears_in_the_settings_repr() -> None:
    assert "s3cret" not in repr(KafkaSecurity.from_environment(SCRAM_TLS))


@pytest.mark.parametrize(
    ("environ", "reason"),
    [
        ({"CROUPIER_KAFKA_SECURITY_PROTOCOL": "TLS"}, "expected one of PLAINTEXT, SSL"),
        (
            {"CROUPIER_KAFKA_SECURITY_PROTOCOL": "SASL_SSL"},
            "needs CROUPIER_KAFKA_SASL_USERNAME and CROUPIER_KAFKA_SASL_PASSWORD",
        ),
        ({**SCRAM_TLS, "CROUPIER_KAFKA_SASL_MECHANISM": "GSSAPI"}, "PLAIN, SCRAM-SHA-256"),
        (
            {"CROUPIER_KAFKA_SECURITY_PROTOCOL": "SSL", "CROUPIER_KAFKA_SSL_CERT_FILE": "/c"},
            "CROUPIER_KAFKA_SSL_CERT_FILE and CROUPIER_KAFKA_SSL_KEY_FILE go together",
        ),
        ({"CROUPIER_KAFKA_SSL_CA_FILE": "/ca"}, "does not use TLS"),
    ],
)
def test_an_inconsistent_setting_stops_the_process_at_start(
    environ: dict[str, str], reason: str
) -> None:
    with pytest.raises(SettingsError, match=reason):
        KafkaSecurity.from_environment(environ)
