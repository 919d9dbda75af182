# Alcazaba server: `docker run -e DISCORD_TOKEN=... -v alcazaba-data:/data alcazaba`
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATA_DIR=/data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY render ./render
COPY bot ./bot
COPY migrations ./migrations
RUN pip install '.[postgres]' \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin alcazaba \
    && mkdir -p /data \
    && chown alcazaba:alcazaba /data

USER alcazaba
WORKDIR /home/alcazaba
VOLUME ["/data"]
CMD ["alcazaba", "run"]
