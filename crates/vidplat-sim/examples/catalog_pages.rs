//! A small catalog against the simulator: a category tree, contents in each
//! category, listed page by page, each given a signed viewing-page URL valid
//! for an hour: `cargo run --example catalog_pages`.

use anyhow::{Context, Result};
use std::time::Duration;
use vidplat::prelude::*;
use vidplat::signing::{sign_page, Grant};
use vidplat::vms::types::{CategoryCreate, ContentCreate, ContentStreamCreate, ContentStreamSetCreate};
use vidplat::vms::types::{StreamFormat, ViewingPageCreate};
use vidplat_sim::Simulator;

#[tokio::main]
async fn main() -> Result<()> {
    let sim = Simulator::start().await?;
    let client = sim.client().build()?;
    let vms = client.vms()?;

    // Category names are hierarchical, levels separated by '/': the parent first.
    vms.register_category()
        .body(CategoryCreate::builder().name("catalog"))
        .call()
        .await?;
    for genre in ["catalog/drama", "catalog/news"] {
        let category = vms
            .register_category()
            .body(CategoryCreate::builder().name(genre))
            .call()
            .await?;
        for episode in 1..=3 {
            let name = format!("{}-{episode}", genre.replace('/', "-"));
            let content = ContentCreate::builder()
                .name(name.as_str())
                .title(format!("{genre} #{episode}"))
                .category_id(&category.id)
                .streams([ContentStreamCreate::builder()
                    .name("main")
                    .path(format!("/{name}/index.m3u8"))
                    .format(StreamFormat::Hls)])
                .stream_sets([ContentStreamSetCreate::builder().name("default").stream_names(["main"])]);
            vms.register_content().body(content).call().await?;
        }
    }

    let sites = vms.list_sites().call().await?;
    let site = sites.data.first().context("the simulator has built-in sites")?;
    let domain = site.domain_names.first().context("a site has a domain")?;
    let grant = Grant::valid_for(Duration::from_secs(3600));
    // Two contents a page, to show the paginator at work.
    let mut contents = vms.list_contents().per_page(2).items();
    while let Some(content) = contents.try_next().await? {
        let page = ViewingPageCreate::builder()
            .content_name(&content.name)
            .site_id(&site.id)
            .signature_required(true);
        let page = vms.register_viewing_page().body(page).call().await?;
        let url = sign_page(&page, domain, &grant)?;
        let local = sim.local_page_url(&url).context("a page URL the simulator serves")?;
        let status = reqwest::get(local).await?.status();
        anyhow::ensure!(status.is_success(), "{url} answered {status}");
        println!("{:<20} {url}", content.name.as_deref().unwrap_or("?"));
    }
    Ok(())
}
