//! Probekit `methodNames` / `methodLineTables` strings: encoder and decoder.
