import { z } from 'zod';

import { CountSchema } from './primitives.js';

/** Page wrapper; every paged list answers with it. */
export interface Page<T> {
  content: T[];
  pageNumber: number;
  pageSize: number;
  totalElements: number;
  totalPages: number;
  isLast: boolean;
}

export function pageSchema<T extends z.ZodType>(itemSchema: T) {
  return z.object({
    content: z.array(itemSchema),
    pageNumber: CountSchema,
    pageSize: z.number().int().positive(),
    totalElements: CountSchema,
    totalPages: CountSchema,
    isLast: z.boolean(),
  });
}

/**
 * Wraps one page of items. `page` and `size` are the requested values, so a page
 * past the end yields empty content with isLast true.
 */
export function toPage<T>(items: readonly T[], total: number, page: number, size: number): Page<T> {
  const totalPages = total === 0 ? 0 : Math.ceil(total / size);
  return {
    content: [...items],
    pageNumber: page,
    pageSize: size,
    totalElements: total,
    totalPages,
    isLast: page >= totalPages - 1,
  };
}
