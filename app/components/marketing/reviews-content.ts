// Hard-coded reviews content (docs/product.md §2.7).

export const REVIEW_STATS = [
  { value: "50,000+", label: "Happy Customers" },
  { value: "4.9/5", label: "Average Rating" },
  { value: "$2.5M+", label: "Money Saved" },
  { value: "120+", label: "Countries Served" },
] as const;

export const TESTIMONIALS = [
  {
    name: "Chiamaka O.",
    location: "London, UK",
    quote:
      "Set up in five minutes and Showmax worked straight away. I finally watch Nollywood releases with my mum on the phone.",
  },
  {
    name: "Tunde A.",
    location: "Houston, USA",
    quote:
      "My Spotify now costs a fraction of what I paid. The config file arrived before I had closed the payment tab.",
  },
  {
    name: "Ngozi E.",
    location: "Toronto, Canada",
    quote: "DSTV in full HD with no buffering, even on match days. Support answered my question at 2 a.m.",
  },
] as const;

export const VERIFIED_REVIEWS = [
  {
    name: "Emeka N.",
    location: "Manchester, UK",
    plan: "Pro Yearly",
    date: "March 2025",
    title: "The whole family back on Nigerian TV",
    text: "We had tried three different VPNs before and every one of them got blocked by DSTV within a week. NaijaLink has worked every single day since January. I put the config on my phone, my wife's iPad and the living-room laptop, and the Pro plan covers all three. The yearly price paid for itself in the first two months just from the cheaper subscriptions.",
  },
  {
    name: "Folake B.",
    location: "Berlin, Germany",
    plan: "Basic Monthly",
    date: "February 2025",
    title: "Simple enough for my dad",
    text: "I bought the Basic plan for my father, who is not a tech person. He followed the tutorial video, imported the file into WireGuard and was watching Africa Magic the same evening. When he could not find the toggle, support walked him through it by e-mail within the hour. Worth every cent.",
  },
  {
    name: "Ibrahim S.",
    location: "Dubai, UAE",
    plan: "Pro Monthly",
    date: "April 2025",
    title: "Fast, stable and honest",
    text: "Speeds are excellent: I stream 4K without buffering on Showmax and the connection has not dropped once during a Premier League match. What I value most is that they are upfront: no fake discounts, a clear refund policy and a real person answering support. I have recommended it to my whole office.",
  },
  {
    name: "Adaeze K.",
    location: "Sydney, Australia",
    plan: "Unlock Pass",
    date: "May 2025",
    title: "Perfect for a one-off",
    text: "I only needed Nigerian access for a week to renew a subscription at local prices and watch a wedding livestream. The Unlock Pass was exactly that: pay once, config in my inbox, done. Saved far more than the $9.99 it cost, and I will be back for a monthly plan.",
  },
] as const;
