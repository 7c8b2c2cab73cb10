import { ChevronLeft, ChevronRight } from "lucide-react";
import { Link } from "react-router";
import { Button } from "#app/components/ui/button.tsx";

export function blogPageHref(page: number): string {
  return page <= 1 ? "/blog" : `/blog?page=${page}`;
}

/** docs/product.md §8.2: Previous whenever a page before exists, Next whenever a page after exists. */
export function BlogPagination({
  page,
  hasPrevious,
  hasNext,
}: {
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
}) {
  return (
    <nav aria-label="Blog pages" className="mt-10 flex items-center justify-center gap-4">
      {hasPrevious ? (
        <Button asChild variant="outline">
          <Link to={blogPageHref(page - 1)} rel="prev">
            <ChevronLeft aria-hidden="true" />
            Previous
          </Link>
        </Button>
      ) : null}
      <span className="text-sm text-muted-foreground" aria-current="page">
        Page {page}
      </span>
      {hasNext ? (
        <Button asChild variant="outline">
          <Link to={blogPageHref(page + 1)} rel="next">
            Next
            <ChevronRight aria-hidden="true" />
          </Link>
        </Button>
      ) : null}
    </nav>
  );
}
