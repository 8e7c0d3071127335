//! The `/metrics` HTTP endpoint (axum) shared by `zshm router` and `zshm exporter`.

use std::net::SocketAddr;

use anyhow::Context;
use axum::http::header::CONTENT_TYPE;
use axum::routing::get;
use zshm::telemetry::exporter::{CONTENT_TYPE as METRICS_CONTENT_TYPE, Exporter};

/// Binds `addr` and serves `exporter` at `/metrics` in the background; returns the bound address.
pub async fn serve(addr: SocketAddr, exporter: Exporter) -> anyhow::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
        format!("cannot listen for metrics on {addr} (use --metrics ADDR or --no-metrics)")
    })?;
    let bound = listener.local_addr()?;
    let app = axum::Router::new()
        .route(
            "/metrics",
            get(move || {
                let exporter = exporter.clone();
                async move { ([(CONTENT_TYPE, METRICS_CONTENT_TYPE)], exporter.render().await) }
            }),
        )
        .route("/", get(|| async { "zshm exporter: metrics at /metrics\n" }));
    tokio::spawn(async move {
        if let Err(err) = axum::serve(listener, app).await {
            tracing::error!("metrics endpoint stopped: {err}");
        }
    });
    Ok(bound)
}
