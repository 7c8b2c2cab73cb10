import { Play } from "lucide-react";

/**
 * A click-to-load YouTube player: until the visitor asks for the video, the page pays for
 * one button and no third-party request (no iframe, script, cookie or thumbnail). The
 * enhancement script swaps the button for the iframe on click. Without a
 * configured video the poster stays, with a note instead of a play button.
 */
export function VideoFacade({ videoId, title }: { videoId: string | null; title: string }) {
  if (!videoId) {
    return (
      <div className="relative flex aspect-video w-full flex-col items-center justify-center gap-2 overflow-hidden rounded-xl bg-gradient-to-br from-brand-dark to-primary px-4 text-center text-white shadow-lg sm:gap-4">
        <p className="text-sm font-semibold sm:text-lg">{title}</p>
        <p className="rounded-full bg-white/95 px-4 py-1.5 text-sm font-semibold text-brand-dark">
          Video coming soon
        </p>
        <p className="text-sm text-white/90 sm:text-base">Follow the three steps below in the meantime.</p>
      </div>
    );
  }
  return (
    <div className="relative aspect-video w-full overflow-hidden rounded-xl bg-brand-dark shadow-lg">
      <button
        type="button"
        className="group absolute inset-0 flex size-full flex-col items-center justify-center gap-2 sm:gap-4 bg-gradient-to-br from-brand-dark to-primary text-white focus-visible:outline-none focus-visible:ring-4 focus-visible:ring-white focus-visible:ring-inset"
        data-video-id={videoId}
        data-video-title={title}
      >
        <span className="flex size-16 items-center justify-center rounded-full bg-white/95 text-primary shadow-lg transition-transform group-hover:scale-110 md:size-20">
          <Play aria-hidden="true" className="ml-1 size-8 fill-current md:size-10" />
        </span>
        <span className="px-4 text-center text-sm font-semibold sm:text-lg">Play video: {title}</span>
      </button>
    </div>
  );
}
