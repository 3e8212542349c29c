/* png2ppm: converts a PNG to a binary PPM (P6) for data/images/, optionally
 * cropping to a centred WxH window, so the histogram program and the GPU
 * machine need no image library.  Alpha, if any, is dropped (the histogram
 * program gives every photo pixel alpha 255).  Built only where libpng is
 * found.
 *
 *   png2ppm IN.png OUT.ppm [W H]
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "png2ppm: %s (%s)\n", what, detail);
    return 2;
}

int main(int argc, char **argv)
{
    png_image image;
    png_bytep rgb;
    long crop_w, crop_h, x0, y0;
    FILE *out;

    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: png2ppm IN.png OUT.ppm [W H]\n");
        return 1;
    }
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, argv[1]))
        return fail(argv[1], image.message);
    image.format = PNG_FORMAT_RGB; /* libpng converts palette, grey and alpha */
    rgb = malloc(PNG_IMAGE_SIZE(image));
    if (!rgb)
        return fail("out of memory", argv[1]);
    if (!png_image_finish_read(&image, NULL, rgb, 0, NULL)) {
        free(rgb);
        return fail(argv[1], image.message);
    }
    crop_w = argc == 5 ? strtol(argv[3], NULL, 10) : (long)image.width;
    crop_h = argc == 5 ? strtol(argv[4], NULL, 10) : (long)image.height;
    if (crop_w < 1 || crop_h < 1 || crop_w > (long)image.width || crop_h > (long)image.height) {
        free(rgb);
        return fail("crop size outside the image", argv[1]);
    }
    x0 = ((long)image.width - crop_w) / 2;
    y0 = ((long)image.height - crop_h) / 2;
    out = fopen(argv[2], "wb");
    if (!out) {
        free(rgb);
        return fail("cannot write", argv[2]);
    }
    fprintf(out, "P6\n%ld %ld\n255\n", crop_w, crop_h);
    for (long y = 0; y < crop_h; y++)
        fwrite(rgb + ((size_t)(y0 + y) * image.width + (size_t)x0) * 3, 3, (size_t)crop_w, out);
    free(rgb);
    if (fclose(out) != 0)
        return fail("write failed", argv[2]);
    printf("%s: %ux%u -> %s: %ldx%ld (offset %ld,%ld)\n", argv[1], image.width, image.height,
           argv[2], crop_w, crop_h, x0, y0);
    return 0;
}
