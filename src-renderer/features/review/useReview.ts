import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RecordKind, ReviewChange, ReviewTarget } from '../../../src-shared/search';
import { CHANGED_BY_REVIEW } from '../../lib/live';
import { refreshCommands } from '../../lib/refresh';
import { call } from '../../lib/satchel';

/** `review.apply` for a profile; every list and pane showing review state is read again after. */
export function useReview(profileId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ target, change }: { target: ReviewTarget; change: ReviewChange }) =>
      call('review.apply', { profileId, target, change }),
    onSuccess: () => refreshCommands(client, CHANGED_BY_REVIEW),
  });
}

export const byIds = (kind: RecordKind, ids: string[]): ReviewTarget => ({ by: 'ids', kind, ids });
