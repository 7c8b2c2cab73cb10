import { useParams } from "react-router";
import { PageHero } from "#app/components/page-hero.tsx";

export default function AdminBlogEditor() {
  const { id } = useParams();
  return <PageHero title={id ? "Edit Post" : "New Post"} />;
}
