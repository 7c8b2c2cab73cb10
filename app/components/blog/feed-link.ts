/** The `<link rel="alternate">` that lets feed readers find /blog/rss.xml from any blog page. */
export function rssDiscoveryLink(brand: string) {
  return {
    tagName: "link",
    rel: "alternate",
    type: "application/rss+xml",
    title: `${brand} Blog`,
    href: "/blog/rss.xml",
  } as const;
}

/** docs/product.md §8.2: the list's text when there are no posts or the list could not be read. */
export const EMPTY_BLOG_MESSAGE = "No blog posts available yet";
