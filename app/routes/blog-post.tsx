import { data } from "react-router";

// The public post page arrives with the blog issue; until then every slug is not found.
export function loader() {
  throw data(null, { status: 404 });
}

export default function BlogPost() {
  return null;
}
